// Reporter dispatch: every reporter is a pure function of the run report.
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderPretty } from './pretty.js';
import type { RunReport } from './report.js';

export type ReporterName = 'pretty' | 'json' | 'junit';
export const REPORTER_NAMES: readonly ReporterName[] = ['pretty', 'json', 'junit'];

export function render(name: ReporterName, report: RunReport, opts: { color: boolean } = { color: false }): string {
  switch (name) {
    case 'pretty':
      return renderPretty(report, opts);
    case 'json':
      return renderJson(report);
    case 'junit':
      return renderJunit(report);
  }
}

export { renderJson, renderJunit, renderPretty };
