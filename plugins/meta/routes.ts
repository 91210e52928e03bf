// GET {apiRoot}/meta and {apiRoot}/openapi.json: the caller's documents, as cached text with an
// ETag; a matching If-None-Match is 304 without a body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { callerKey } from '../../lib/access/resolve.js'
import type { CachedDocument } from '../../lib/meta/cached-document.js'
import type { CallerDocuments, DocumentCaller } from '../../lib/meta/caller-documents.js'
import { checkKnownParameters, noneMatch } from '../../lib/query/params.js'

export interface MetaRouteOptions {
  readonly apiRoot: string
  readonly documents: CallerDocuments
}

/** The verified caller of a request, as documents are built for it. */
export function documentCaller (request: FastifyRequest): DocumentCaller {
  const { user, tenant, org, access } = request.ctx
  if (user === null) throw new Error('a document route ran without a verified caller')
  return { key: callerKey({ user, tenant, org }), roles: user.roles, orgRoles: org?.roles, access }
}

export function sendDocument (request: FastifyRequest, reply: FastifyReply, document: CachedDocument): FastifyReply {
  reply.header('etag', document.etag).header('cache-control', 'private, no-cache').header('vary', 'authorization, cookie')
  if (noneMatch(request.headers['if-none-match'], document.etag)) return reply.code(304).send()
  return reply.code(200).type('application/json; charset=utf-8').send(document.body)
}

export async function metaRoutes (app: FastifyInstance, options: MetaRouteOptions): Promise<void> {
  const { apiRoot, documents } = options
  app.get(`${apiRoot}/meta`, async (request, reply) => {
    checkKnownParameters(request.query as Record<string, unknown>, [])
    return sendDocument(request, reply, documents.meta(documentCaller(request)))
  })
  app.get(`${apiRoot}/openapi.json`, async (request, reply) => {
    checkKnownParameters(request.query as Record<string, unknown>, [])
    return sendDocument(request, reply, documents.openapi(documentCaller(request)))
  })
}
