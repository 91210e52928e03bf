CREATE TABLE customers (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  email text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE orders (
  id bigserial PRIMARY KEY,
  customer_id bigint REFERENCES customers (id),
  title text NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'locked')),
  total numeric(12, 2),
  position integer,
  placed_at timestamptz,
  deleted_at timestamptz,
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX orders_customer_id_idx ON orders (customer_id);
