// The CSV reader of `tablegate org import` (lib/cli/csv.ts) and the file's entries
// (lib/cli/org-import.ts): RFC 4180's quoting, each record's starting line, and refusals naming the
// line and the column. The command itself: organizations-import-cli.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CsvError, csvRecords } from '../../lib/cli/csv.js'
import { ImportFileError, importEntries } from '../../lib/cli/org-import.js'

const records = (text: string): Array<[number, string[]]> => [...csvRecords(text)].map((r) => [r.line, r.fields])

test('fields, quoted fields with commas, doubled quotes and line breaks; each record with the line it starts on', () => {
  assert.deepEqual(records('a,b,c\n1,2,3\n'), [[1, ['a', 'b', 'c']], [2, ['1', '2', '3']]])
  assert.deepEqual(records('a,b\r\n"x, y","say ""hi"""\r\n'), [[1, ['a', 'b']], [2, ['x, y', 'say "hi"']]])
  assert.deepEqual(records('"two\nlines",b\nc,d'), [[1, ['two\nlines', 'b']], [3, ['c', 'd']]])
  assert.deepEqual(records('"two\r\nlines",b\r\nc,d\r\n'), [[1, ['two\r\nlines', 'b']], [3, ['c', 'd']]])
  // Empty fields, quoted or not, are fields; an empty line is no record.
  assert.deepEqual(records(',,\n""\n\na,""\n'), [[1, ['', '', '']], [2, ['']], [4, ['a', '']]])
  assert.deepEqual(records('\uFEFFid,name\n'), [[1, ['id', 'name']]])
  assert.deepEqual(records(''), [])
  assert.deepEqual(records('  spaced , kept \n'), [[1, ['  spaced ', ' kept ']]])
})

test('what RFC 4180 does not allow is refused with its line and field', () => {
  for (const [text, line, field, message] of [
    ['a,b\n"open,c\nd', 2, 1, /^a quoted field is never closed$/],
    ['a,b\nx,"bad"tail\n', 2, 2, /^text after a closing quote/],
    ['a,b\n"a\nb",c\nx,y"z\n', 4, 2, /^a quote inside a field that does not start with one/],
    ['a,"b" \n', 1, 2, /^text after a closing quote/],
  ] as const) {
    assert.throws(() => records(text), (err: unknown) => {
      assert.ok(err instanceof CsvError, String(err))
      assert.deepEqual([err.line, err.field], [line, field], text)
      assert.match(err.message, message)
      return true
    })
  }
})

test('an import file: the header in any order, each line an entry with its line', () => {
  assert.deepEqual(importEntries('slug,owner,id,name\nacme,ann@example.com,42,"Acme, Inc."\n"glo\nbex",bob@example.com,7,Globex\n'), {
    entries: [
      { id: '42', name: 'Acme, Inc.', slug: 'acme', owner: 'ann@example.com' },
      { id: '7', name: 'Globex', slug: 'glo\nbex', owner: 'bob@example.com' },
    ],
    lines: [2, 3],
  })
  assert.deepEqual(importEntries('id,name,slug,owner\n'), { entries: [], lines: [] })
})

test('an import file\'s refusals name the line and the column', () => {
  for (const [text, message] of [
    ['', 'line 1: the file is empty: its first line is the header id,name,slug,owner (in any order)'],
    ['id,name,slug,email\n', 'line 1, column 4: \'email\' is not a column of an import: the header is id,name,slug,owner (in any order)'],
    ['id,name,slug,owner,id\n', 'line 1, column 5: id is named twice'],
    ['id,name,slug\n', 'line 1: the header lacks owner: it is id,name,slug,owner (in any order)'],
    ['id,name,slug,owner\n42,Acme,acme\n', 'line 2: 3 fields where the header has 4'],
    ['id,name,slug,owner\n42,Acme,acme,a@example.com,x\n', 'line 2: 5 fields where the header has 4'],
    ['id,name,slug,owner\n42,"Acme\nInc",acme,a@example.com\n7,Say "hi",globex,b@example.com\n', 'line 4, name: a quote inside a field that does not start with one (quote the whole field, and write the quote twice)'],
    ['id,name,slug,owner\n42,"Acme" Inc,acme,a@example.com\n', 'line 2, name: text after a closing quote (a quote inside a quoted field is written twice: "")'],
    ['id,name,slug,owner\n42,Acme,acme,"a@example.com\n', 'line 2, owner: a quoted field is never closed'],
    ['id,"na"me\n', 'line 1, column 2: text after a closing quote (a quote inside a quoted field is written twice: "")'],
  ] as const) {
    assert.throws(() => importEntries(text), (err: unknown) => {
      assert.ok(err instanceof ImportFileError, String(err))
      assert.equal(err.message, message)
      return true
    }, JSON.stringify(text))
  }
})
