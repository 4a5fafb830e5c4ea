// Preloaded into server-everything by tests/everything.py (`node --require`): its HTTP mode has no
// host option and listens on every interface, so each listen() that names only a port is bound to
// 127.0.0.1 here, and the port the system picked (PORT=0) is written to stderr for the test to read.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    args.splice(1, typeof args[1] === "string" ? 1 : 0, "127.0.0.1");
  }
  this.once("listening", () => process.stderr.write(`listening on 127.0.0.1:${this.address().port}\n`));
  return listen.apply(this, args);
};
