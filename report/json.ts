// JSON reporter: the run report exactly as it is (its shape is the published format,
// versioned by `formatVersion`), pretty-printed with a trailing newline.
import type { RunReport } from './report.js';

export function renderJson(report: RunReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
