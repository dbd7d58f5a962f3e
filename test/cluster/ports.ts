import { createServer } from "node:net";

/**
 * Asks the kernel for a free loopback port. Another process may take it before
 * it is used; callers that bind it retry the whole start on a bind error.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("could not read the port of a loopback listener"));
      });
    });
  });
}
