// Preloaded (node --require) into a server that offers no option for its address (the Portkey
// gateway, llm-debugger): every listen() of the process binds 127.0.0.1, so the compatibility run
// never opens a port to the network.
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === 'object' && first !== null && !('fd' in first) && !('path' in first)) {
    args[0] = { ...first, host: '127.0.0.1' };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    const callback = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : undefined;
    args = callback ? [Number(first), '127.0.0.1', callback] : [Number(first), '127.0.0.1'];
  }
  return listen.apply(this, args);
};
