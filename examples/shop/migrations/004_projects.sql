-- Projects belong to an organization (organizations: docs/organizations.md): org_id is the tenant
-- column, which tablegate fills with the caller's active organization and confines every read and
-- write to. Indexed by it first, as every read of the table is one organization's.
CREATE TABLE projects (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL,
  name text NOT NULL,
  budget numeric(12, 2),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_org_id_idx ON projects (org_id, id);
