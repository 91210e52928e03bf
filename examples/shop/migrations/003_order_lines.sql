-- Order lines: each belongs to an order (orders.lines, order_lines.order_id), read by order and
-- position through the index whose first column is order_id.
CREATE TABLE order_lines (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  position integer NOT NULL,
  sku text NOT NULL,
  quantity integer NOT NULL DEFAULT 1 CHECK (quantity > 0),
  price numeric(12, 2),
  UNIQUE (order_id, position)
);

INSERT INTO order_lines (order_id, position, sku, quantity, price)
SELECT o.id, p, 'SKU-' || (100 + (o.id * 7 + p) % 40), 1 + (o.id + p) % 3, (5 + (o.id * 3 + p) % 20)::numeric(12, 2)
FROM orders o, generate_series(1, 1 + o.id::int % 3) AS p;
