// The API's routes (section 4), as the mock serves them and the recorder forwards them: path -> method.
export const CHAT_PATH = '/v1/chat/completions';
export const MODELS_PATH = '/v1/models';
/** The public catalog (4.3): the one route that takes no key (5.3). */
export const CATALOG_PATH = '/models.json';

export const API_ROUTES: Readonly<Record<string, string>> = { [CHAT_PATH]: 'POST', [MODELS_PATH]: 'GET', [CATALOG_PATH]: 'GET' };

/** A request line's path as a route: no query, no trailing slash. */
export const routePath = (path: string): string => (API_ROUTES[path] ? path : path.split('?')[0].replace(/\/+$/, '') || '/');
