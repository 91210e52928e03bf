// Filter parse trees written as small S-expressions, and the syntax issue a parse throws: what the
// parser tests compare.
import assert from 'node:assert/strict'
import { parseFilter } from '../../lib/query/filter/parser.js'
import type { FilterNode, Name, Value } from '../../lib/query/filter/ast.js'
import { QuerySyntaxError, type QueryIssue } from '../../lib/query/span.js'

export function syntaxIssue (run: () => unknown): QueryIssue {
  try {
    run()
  } catch (err) {
    if (err instanceof QuerySyntaxError) return err.issue
    throw err
  }
  assert.fail('expected a QuerySyntaxError')
}

function value (v: Value): string {
  if (v.kind === 'now') return v.offset === undefined ? 'now()' : `now()${v.offset.sign > 0 ? '+' : '-'}${v.offset.text}`
  return v.quoted ? JSON.stringify(v.text) : v.text
}

const dotted = (field: Name, path: readonly Name[]): string => [field, ...path].map((n) => n.text).join('.')

/** A parse tree as an S-expression: `(and (= a.b 1) (or (term x) (call f a "b")))`. */
export function tree (node: FilterNode | undefined): string {
  if (node === undefined) return '()'
  switch (node.kind) {
    case 'and':
    case 'or': return `(${node.kind} ${node.children.map(tree).join(' ')})`
    case 'not': return `(not ${tree(node.child)})`
    case 'compare': return `(${node.op} ${dotted(node.field, node.path)} ${value(node.value)})`
    case 'member': return `(member ${dotted(node.field, node.path)})`
    case 'call': return `(call ${[node.name.text, ...node.args.map(value)].join(' ')})`
    case 'term': return `(term ${value(node.value)})`
  }
}

export const parse = (input: string): string => tree(parseFilter(input))
