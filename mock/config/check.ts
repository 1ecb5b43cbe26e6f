// The rules between the parts of a configuration that a schema cannot state, with no file system:
// what the file loader applies after parsing, and a page's mock to the object it is given (extend.ts).
import type { Problem } from '../../schemas/file.js';
import { resolveFaults } from '../core/faults/select.js';
import { textMatcher } from '../core/scenarios.js';
import { parseContent } from '../core/content/choice.js';
import { hostProblem, originProblem } from '../boundary.js';
import type { ContentRef, FaultRef, MockConfig } from './types.js';

/** Rules a schema cannot state: references between parts of the file. */
export function crossCheck(c: MockConfig): Problem[] {
  const out: Problem[] = [];
  const seen = new Set<string>();
  c.models.forEach((m, i) => {
    if (seen.has(m.id)) out.push({ path: ['models', i, 'id'], message: `expected each model id once; "${m.id}" is defined twice` });
    seen.add(m.id);
  });
  const keyIds = new Set<string>();
  const keyValues = new Set<string>();
  c.keys.forEach((k, i) => {
    if (keyIds.has(k.id)) out.push({ path: ['keys', i, 'id'], message: `expected each key id once; "${k.id}" is used twice` });
    if (keyValues.has(k.key)) out.push({ path: ['keys', i, 'key'], message: 'expected each key once; the same key is given twice' });
    keyIds.add(k.id);
    keyValues.add(k.key);
    k.models.forEach((id, j) => {
      if (!seen.has(id)) out.push({ path: ['keys', i, 'models', j], message: `expected the id of a model defined under models; "${id}" is not one` });
    });
  });
  const fault = (ref: FaultRef, path: (string | number)[]) => {
    try {
      resolveFaults([ref]);
    } catch (e) {
      out.push({ path, message: `expected a fault of the catalogue; ${(e as Error).message}` });
    }
  };
  const content = (ref: ContentRef | undefined, path: (string | number)[]) => {
    if (ref === undefined) return;
    try {
      parseContent(ref);
    } catch (e) {
      out.push({ path, message: `expected a content profile and split; ${(e as Error).message}` });
    }
  };
  c.cors?.origins?.forEach((o, i) => {
    const problem = originProblem(o);
    if (problem) out.push({ path: ['cors', 'origins', i], message: problem });
  });
  c.allowed_hosts?.forEach((h, i) => {
    const problem = hostProblem(h);
    if (problem) out.push({ path: ['allowed_hosts', i], message: problem });
  });
  content(c.content, ['content']);
  c.models.forEach((m, i) => content(m.content, ['models', i, 'content']));
  c.faults?.always?.forEach((f, i) => fault(f, ['faults', 'always', i]));
  c.faults?.random?.pool.forEach((f, i) => fault(f, ['faults', 'random', 'pool', i]));
  c.scenarios?.forEach((s, i) => {
    if (s.match.model !== undefined && !seen.has(s.match.model))
      out.push({ path: ['scenarios', i, 'match', 'model'], message: `expected a model defined under models; "${s.match.model}" is not one` });
    if (s.match.key !== undefined && !keyIds.has(s.match.key)) out.push({ path: ['scenarios', i, 'match', 'key'], message: `expected a key id defined under keys; "${s.match.key}" is not one` });
    const result = typeof s.match.tool_result === 'object' ? s.match.tool_result.content : undefined;
    const patterns: [(string | number)[], string | undefined][] = [
      [['last_user'], s.match.last_user],
      [['system'], s.match.system],
      [['tool_result', 'content'], result],
    ];
    for (const [field, pattern] of patterns) {
      if (pattern === undefined) continue;
      try {
        textMatcher(pattern);
      } catch (e) {
        out.push({ path: ['scenarios', i, 'match', ...field], message: `expected a valid regular expression: ${(e as Error).message}` });
      }
    }
    if (s.reply.fault) fault(s.reply.fault, ['scenarios', i, 'reply', 'fault']);
    content(s.content, ['scenarios', i, 'content']);
  });
  return out;
}
