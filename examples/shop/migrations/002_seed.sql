INSERT INTO customers (name, email) VALUES
  ('Ada Lovelace', 'ada@example.com'),
  ('Grace Hopper', 'grace@example.com');

INSERT INTO orders (customer_id, title, status, total, position, placed_at)
SELECT 1 + (n % 2), 'Order ' || n, (ARRAY['draft', 'open', 'locked'])[1 + n % 3], (n * 7.25)::numeric(12, 2), n,
       timestamptz '2026-01-01' + n * interval '1 day'
FROM generate_series(1, 30) AS n;
