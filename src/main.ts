// Entry point: wires configuration, watchers, metrics and the HTTP server.
console.log(JSON.stringify({ level: "info", msg: "cr-status-exporter starting", node: process.version }));
