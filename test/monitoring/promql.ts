// PromQL inspection for the static checks of the shipped rules and dashboards,
// on the official Prometheus grammar (@prometheus-io/lezer-promql).
import { parser } from "@prometheus-io/lezer-promql";

export interface Matcher {
  readonly label: string;
  readonly op: string;
  /** The value with its quotes removed. */
  readonly value: string;
}

export interface Selector {
  readonly metric: string | undefined;
  readonly matchers: readonly Matcher[];
  /** Inside a range selector (`x[5m]`), i.e. the argument of rate(), increase() and the like. */
  readonly inRange: boolean;
  /** The function the range selector is passed to, if any. */
  readonly rangeFunction: string | undefined;
}

export interface ParsedPromql {
  /** Offsets of syntax errors; empty when the expression parses. */
  readonly errors: readonly number[];
  readonly selectors: readonly Selector[];
}

/**
 * Parses one expression. Grafana's `$__rate_interval`-style macros are not
 * PromQL, so callers substitute them first (template variables inside label
 * values are fine: they are plain string content).
 */
export function parsePromql(expr: string): ParsedPromql {
  const tree = parser.parse(expr);
  const errors: number[] = [];
  const selectors: Selector[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) errors.push(cursor.from);
    if (cursor.name === "VectorSelector") {
      const node = cursor.node;
      const metricNode = node.getChild("Identifier");
      const matchers: Matcher[] = [];
      const list = node.getChild("LabelMatchers");
      for (const m of list ? list.getChildren("UnquotedLabelMatcher") : []) {
        const label = m.getChild("LabelName");
        const op = m.getChild("MatchOp");
        const value = m.getChild("StringLiteral");
        if (label && op && value)
          matchers.push({
            label: expr.slice(label.from, label.to),
            op: expr.slice(op.from, op.to),
            value: expr.slice(value.from + 1, value.to - 1),
          });
      }
      const inRange = node.parent?.name === "MatrixSelector";
      let rangeFunction: string | undefined;
      const call = inRange ? node.parent?.parent?.parent : undefined;
      if (call?.name === "FunctionCall") {
        const id = call.getChild("FunctionIdentifier");
        if (id) rangeFunction = expr.slice(id.from, id.to);
      }
      selectors.push({
        metric: metricNode ? expr.slice(metricNode.from, metricNode.to) : undefined,
        matchers,
        inRange,
        rangeFunction,
      });
    }
  } while (cursor.next());
  return { errors, selectors };
}

/** Replaces Grafana's interval macros by a fixed duration so the expression is plain PromQL. */
export function withoutGrafanaMacros(expr: string, interval = "5m"): string {
  return expr
    .replaceAll("$__rate_interval", interval)
    .replaceAll("$__interval", interval)
    .replaceAll("$__range", "1h");
}
