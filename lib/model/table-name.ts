// A config's `table` is a name as SQL writes it, and as PostgreSQL reads one given as text (the
// start finds the table with to_regclass): `table` or `schema.table`, an unquoted name folded to
// lower case, a quoted one ("Odd Schema") kept as written, with `""` for a quote inside it. The
// queries name the parts this reads, always quoted, so the table checked is the table served.

/** Why a `table` text names no table. */
export class TableNameError extends Error {}

const SIMPLE = /^[a-z_][a-z0-9_$]*$/
const SPACE = /\s/

/** Folds as PostgreSQL folds an unquoted name: ASCII letters only. */
function folded (name: string): string {
  return name.replace(/[A-Z]/g, (c) => c.toLowerCase())
}

/** The names a `table` text stands for, schema first; throws a TableNameError saying why there are none. */
export function tableNameParts (text: string): string[] {
  const parts: string[] = []
  let i = 0
  const skipSpace = (): void => { while (i < text.length && SPACE.test(text[i]!)) i++ }
  for (;;) {
    skipSpace()
    if (text[i] === '"') {
      let name = ''
      for (i++; ; i++) {
        if (i >= text.length) throw new TableNameError('a quoted name is not closed')
        if (text[i] === '"') {
          if (text[i + 1] !== '"') break
          i++
        }
        name += text[i]
      }
      i++
      if (name === '') throw new TableNameError('a quoted name is empty')
      parts.push(name)
    } else {
      const start = i
      while (i < text.length && text[i] !== '.' && text[i] !== '"' && !SPACE.test(text[i]!)) i++
      if (i === start) throw new TableNameError(text.trim() === '' ? 'it is empty' : 'a name before or after a dot is missing')
      parts.push(folded(text.slice(start, i)))
    }
    skipSpace()
    if (i >= text.length) break
    if (text[i] !== '.') throw new TableNameError('a name that holds spaces, dots or quotes, or keeps capitals, is written in double quotes, as in SQL')
    i++
  }
  if (parts.length > 2) throw new TableNameError('it has more than two names (use table or schema.table)')
  if (parts.some((p) => p.includes('\0'))) throw new TableNameError('a name holds the NUL character')
  return parts
}

/** Names as SQL text, each quoted only where it must be: a `table` option, a column in a CREATE INDEX, a table in messages. */
export function sqlNameText (parts: readonly string[]): string {
  return parts.map((p) => SIMPLE.test(p) ? p : `"${p.replace(/"/g, '""')}"`).join('.')
}
