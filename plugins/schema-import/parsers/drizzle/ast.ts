import ts from 'typescript';

/** Reading the TypeScript syntax tree without evaluating it: literals, call chains, object properties. */

export interface MethodCall {
  name: string;
  args: readonly ts.Expression[];
  node: ts.CallExpression;
}

/** Not a value: the literal reader answers this for anything it cannot read without running code. */
export const UNKNOWN = Symbol('unknown');
export const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Parentheses, `as`, `satisfies` and `!` change nothing a static reader cares about. */
export function unwrap(e: ts.Expression): ts.Expression {
  for (;;) {
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e))
      e = e.expression;
    else return e;
  }
}

/** `a.b().c(x).d()` → the base call `a.b()` and the calls chained on it, innermost first. */
export function chainOf(expr: ts.Expression): { base: ts.Expression; calls: MethodCall[] } {
  const calls: MethodCall[] = [];
  let e = unwrap(expr);
  for (;;) {
    if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression)) {
      const target = unwrap(e.expression.expression);
      if (ts.isCallExpression(target) || ts.isTaggedTemplateExpression(target)) {
        calls.unshift({ name: e.expression.name.text, args: e.arguments, node: e });
        e = target;
        continue;
      }
    }
    return { base: e, calls };
  }
}

/** A literal value (string, number, boolean, null, arrays and objects of those), or UNKNOWN. */
export function literal(e: ts.Expression): unknown {
  e = unwrap(e);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  if (ts.isNumericLiteral(e)) return Number(e.text);
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(e.operand)) return -Number(e.operand.text);
  if (e.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (e.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (e.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(e)) {
    const out: unknown[] = [];
    for (const x of e.elements) {
      const v = literal(x);
      if (v === UNKNOWN) return UNKNOWN;
      out.push(v);
    }
    return out;
  }
  if (ts.isObjectLiteralExpression(e)) {
    const out: Record<string, unknown> = {};
    for (const p of e.properties) {
      if (!ts.isPropertyAssignment(p)) return UNKNOWN;
      const key = propertyName(p.name);
      const v = literal(p.initializer);
      if (key === null || v === UNKNOWN) return UNKNOWN;
      out[key] = v;
    }
    return out;
  }
  return UNKNOWN;
}

export function propertyName(n: ts.PropertyName): string | null {
  if (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  return null;
}

/** One literal property of an object literal, quietly: other properties may be column lists. */
export function prop(obj: ts.ObjectLiteralExpression, key: string): unknown {
  for (const p of obj.properties) if (ts.isPropertyAssignment(p) && propertyName(p.name) === key) return literal(p.initializer);
  return undefined;
}

export function objectArray(obj: ts.ObjectLiteralExpression, key: string): ts.Expression[] | null {
  for (const p of obj.properties) {
    if (ts.isPropertyAssignment(p) && propertyName(p.name) === key) {
      const v = unwrap(p.initializer);
      return ts.isArrayLiteralExpression(v) ? [...v.elements] : null;
    }
  }
  return null;
}
