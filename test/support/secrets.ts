// Keys a property can hide anywhere, and how to tell whether any piece of one shows.
import { fc } from '@fast-check/vitest';
import { MIN_RUN } from '../../engine/redact.js';

/** Keys of characters no filler and no mark of the kit uses ([REDACTED], "characters in all"),
 * so that any four of them in a row in an output can only come from the key. */
export const keys = fc.string({ unit: fc.constantFrom(...'0123456789BFGHIJKLMNOPQSUVWXYZ'), minLength: 20, maxLength: 48 }).map((k) => `sk-${k}`);

/** The pieces of `key` (in any form the redactor knows) that `text` shows: four characters or more. */
export function piecesShown(text: string, key: string): string[] {
  const forms = [key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1), Buffer.from(`conformance:${key}`).toString('base64')];
  const shown: string[] = [];
  for (const form of forms) for (let i = 0; i + 4 <= form.length; i++) if (text.includes(form.slice(i, i + 4))) shown.push(form.slice(i, i + 4));
  return shown;
}

/** The runs of MIN_RUN characters of `key` (in any form the redactor knows) that `text` shows. */
export function runsShown(text: string, key: string): string[] {
  const length = MIN_RUN;
  const forms = [key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1), Buffer.from(`conformance:${key}`).toString('base64')];
  const shown = new Set<string>();
  for (const form of forms) for (let i = 0; i + length <= form.length; i++) if (text.includes(form.slice(i, i + length))) shown.add(form.slice(i, i + length));
  return [...shown];
}
