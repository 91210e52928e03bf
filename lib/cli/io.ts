// Where a command's lines go: results to `out`, refusals to `err`.

export interface CliIo {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
}
