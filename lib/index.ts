// Public library surface of tablegate: the library (public.ts), the server and the plugins it ships.
export * from './public.js'
export { default as tablegate } from '../plugins/tablegate/index.js'
export { createServer, type ServerOptions } from './server.js'
export { default as auditLog, type AuditLogOptions } from '../plugins/audit-log/index.js'
