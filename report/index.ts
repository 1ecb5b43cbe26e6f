// Reporter dispatch: every reporter is a pure function of the run report.
import { renderGithub } from './github.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import { renderPretty } from './pretty.js';
import type { RunReport } from './report.js';

export type ReporterName = 'pretty' | 'json' | 'junit' | 'markdown' | 'github' | 'html';
export const REPORTER_NAMES: readonly ReporterName[] = ['pretty', 'json', 'junit', 'markdown', 'github', 'html'];

export function render(name: ReporterName, report: RunReport, opts: { color: boolean } = { color: false }): string {
  switch (name) {
    case 'pretty':
      return renderPretty(report, opts);
    case 'json':
      return renderJson(report);
    case 'junit':
      return renderJunit(report);
    case 'markdown':
      return renderMarkdown(report);
    case 'github':
      return renderGithub(report);
    case 'html':
      return renderHtml(report);
  }
}

export { renderGithub, renderHtml, renderJson, renderJunit, renderMarkdown, renderPretty };
