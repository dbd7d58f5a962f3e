// A TurnShare on a clock the test moves by hand: `clock.now` is what the
// budget is measured against, and `clock.turns` counts the turns given (each
// on a real setImmediate, so awaiting callers interleave as in the process).
import { TurnShare } from "../../src/net/turns.ts";

export function fakeTurns(budgetMs: number): { clock: { now: number; turns: number }; turns: TurnShare } {
  const clock = { now: 0, turns: 0 };
  const turns = new TurnShare(
    budgetMs,
    () => clock.now,
    (run) =>
      setImmediate(() => {
        clock.turns++;
        run();
      }),
  );
  return { clock, turns };
}
