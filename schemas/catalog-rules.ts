// The rules of the provider-listing schema 2.4 (catalog-2.4.md) that JSON Schema cannot say: each
// written once here, applied after catalog.schema.json by whoever reads a catalog.

type Json = Record<string, unknown>;

const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => !!x && typeof x === 'object' && !Array.isArray(x)) : []);
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Every pricing array of a model document, with where it stands. */
function pricingArrays(doc: Json, at: string): [string, Json[]][] {
  const out: [string, Json[]][] = [[`${at}.pricing`, objects(doc.pricing)]];
  for (const key of ['input_modalities', 'output_modalities']) objects(doc[key]).forEach((m, i) => out.push([`${at}.${key}[${i}].pricing`, objects(m.pricing)]));
  return out;
}

/** "utc_start/utc_end (HHMM integers 0..2359, both or neither, must differ)". */
function utcWindows(doc: Json, at: string): string[] {
  return pricingArrays(doc, at).flatMap(([where, entries]) =>
    entries.flatMap((e, i) => (e.utc_start !== undefined && e.utc_start === e.utc_end ? [`${where}[${i}]: utc_start and utc_end are both ${JSON.stringify(e.utc_start)}; they must differ`] : [])),
  );
}

/** "Entries are unique by type (plus qualifiers) within one array": the qualifiers are the cache
 * lifetime and the UTC window, which let one type carry several prices. */
function uniquePricing(doc: Json, at: string): string[] {
  return pricingArrays(doc, at).flatMap(([where, entries]) => {
    const seen = new Map<string, number>();
    return entries.flatMap((e, i) => {
      const key = JSON.stringify([e.type, e.ttl_seconds ?? null, e.utc_start ?? null, e.utc_end ?? null]);
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, i);
        return [];
      }
      return [`${where}[${i}]: a second entry of type ${JSON.stringify(e.type)} with the same qualifiers as [${first}]; entries are unique by type`];
    });
  });
}

/** Every parameter descriptor of a document, nested ones (object properties, array items) included. */
function descriptors(doc: Json, at: string): [string, Json][] {
  const out: [string, Json][] = [];
  const walk = (d: unknown, where: string) => {
    if (!isObject(d)) return;
    out.push([where, d]);
    if (isObject(d.properties)) for (const [k, v] of Object.entries(d.properties)) walk(v, `${where}.properties.${k}`);
    walk(d.items, `${where}.items`);
  };
  const maps: [string, unknown][] = [[`${at}.passthrough_parameters`, doc.passthrough_parameters]];
  for (const key of ['input_modalities', 'output_modalities'])
    objects(doc[key]).forEach((m, i) => {
      maps.push([`${at}.${key}[${i}].passthrough_parameters`, m.passthrough_parameters]);
      maps.push([`${at}.${key}[${i}].supported_parameters`, m.supported_parameters]);
    });
  for (const [where, map] of maps) if (isObject(map)) for (const [name, d] of Object.entries(map)) walk(d, `${where}.${name}`);
  return out;
}

/** A descriptor's min is not above its max. */
function minNotAboveMax(doc: Json, at: string): string[] {
  return descriptors(doc, at).flatMap(([where, d]) => (typeof d.min === 'number' && typeof d.max === 'number' && d.min > d.max ? [`${where}: min ${d.min} is above max ${d.max}`] : []));
}

const RULES = [utcWindows, uniquePricing, minNotAboveMax];

/** What breaks the rules above in a catalog document ({data: [model document...]}), one line each. */
export function catalogRuleViolations(catalog: unknown): string[] {
  const data = isObject(catalog) ? objects(catalog.data) : [];
  return data.flatMap((doc, i) => {
    const at = `/data/${i}${typeof doc.id === 'string' ? ` (${doc.id})` : ''}`;
    return RULES.flatMap((rule) => rule(doc, at));
  });
}
