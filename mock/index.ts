// The mock's public surface.
export { createMock, type Mock } from './core/handle.js';
export type { MockRequest, MockReply, Frame } from './core/types.js';
export { startMockServer, type MockServer, type MockServerOptions } from './http.js';
export { serverTls, type MockTls } from './tls.js';
export { DEFAULT_CONFIG } from './config/default.js';
export type { MockConfig, ModelDef, KeyDef, ParameterDescriptor } from './config/types.js';
export { interceptMock, DEFAULT_INTERCEPT_URL, type InterceptedMock } from './intercept.js';
export { loadConfigFile, parseConfig, ConfigError } from './config/load.js';
export { FAULTS } from './core/faults/index.js';
export type { Fault } from './core/faults/index.js';
