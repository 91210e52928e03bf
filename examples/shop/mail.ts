// The shop sends no mail: each mail tablegate hands it (invitations, verification and reset links)
// is logged, one line each, where a real shop would call its mailer.
export function logMail (to: string, subject: string, link: string): void {
  console.log(`mail to ${to}: ${subject} ${link}`)
}
