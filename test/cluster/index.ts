// The test control plane: one per test file (or suite), a fresh namespace per test.
import { after, afterEach, before } from "node:test";
import { ControlPlane, type ControlPlaneOptions } from "./control-plane.ts";

export * from "./control-plane.ts";
export * from "./fixtures.ts";
export * from "./rest.ts";

export interface ControlPlaneHandle {
  /** The running control plane; throws if read before the suite's before() hook ran. */
  readonly plane: ControlPlane;
  /** Resolves with the control plane once it is ready (for the file's own before() hooks). */
  ready(): Promise<ControlPlane>;
}

/**
 * Starts a control plane before the tests of the calling file and stops it
 * after them. When a test fails, the tails of etcd's and kube-apiserver's logs
 * are printed so the failure can be read without re-running.
 */
export function useControlPlane(options: ControlPlaneOptions = {}): ControlPlaneHandle {
  let plane: ControlPlane | undefined;
  let starting: Promise<ControlPlane> | undefined;
  const start = (): Promise<ControlPlane> => {
    starting ??= ControlPlane.start(options).then((p) => {
      plane = p;
      return p;
    });
    return starting;
  };
  before(async () => {
    plane = await start();
    console.error(
      `# control plane ready in ${plane.startMs} ms at ${plane.server} (binaries: ${plane.binaries.source})`,
    );
  });
  afterEach((t) => {
    if (plane && "passed" in t && !t.passed)
      console.error(`# logs after failed test "${t.name}":\n${plane.logTails()}`);
  });
  after(async () => {
    await plane?.stop();
  });
  return {
    ready: start,
    get plane(): ControlPlane {
      if (!plane) throw new Error("the control plane is not started yet (use it inside a test or hook)");
      return plane;
    },
  };
}
