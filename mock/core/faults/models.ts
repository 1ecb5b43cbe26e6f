// Faults of the model list (2.4, 4.2).
import type { Fault } from './fault.js';
import { isModels, withJson } from './rewrite.js';

// Only the list itself is bent; a refusal of the same path stays a refusal.
const onList =
  (edit: (body: any) => unknown): Fault['reply'] =>
  (r, req) =>
    isModels(req) && 'status' in r && r.status === 200 ? withJson(r, edit) : r;

export const MODEL_FAULTS: Fault[] = [
  {
    name: 'models-object-models',
    description: 'The model list says object: "models" instead of "list"',
    fails: ['models.list-shape', 'models.object-constants'],
    reply: onList((b) => void (b.object = 'models')),
  },
  {
    name: 'models-model-object-wrong',
    description: 'Each model says object: "engine" instead of "model"',
    fails: ['models.list-shape', 'models.object-constants'],
    reply: onList((b) => b.data.forEach((m: any) => (m.object = 'engine'))),
  },
  {
    name: 'models-owned-by-missing',
    description: 'Models lack owned_by',
    fails: ['models.list-shape'],
    reply: onList((b) => b.data.forEach((m: any) => delete m.owned_by)),
  },
  {
    name: 'models-created-milliseconds',
    description: 'created in milliseconds instead of seconds',
    fails: ['models.created-seconds'],
    reply: onList((b) => b.data.forEach((m: any) => (m.created *= 1000))),
  },
  {
    name: 'models-duplicate-id',
    description: 'The first model is listed twice',
    fails: ['models.unique-ids'],
    reply: onList((b) => void b.data.push({ ...b.data[0] })),
  },
  {
    name: 'models-lists-unusable-model',
    description: "A key's list shows a model the key may not use",
    fails: ['models.ids-usable', 'catalog.covers-models'],
    reply: onList((b) => void b.data.push({ id: 'mock-listed-but-refused', object: 'model', created: 1_700_000_000, owned_by: 'mock-labs' })),
  },
];
