-- orders_address_idx (address, created_at) served an early scanner that looked orders up by deposit
-- address. Transfers are attributed through addresses.order_id now, and no read filters orders by
-- address, so the index only cost every order creation one insert at a random leaf: at ten million
-- orders it was 650 MB, far beyond shared_buffers, and the largest index on the table.
DROP INDEX IF EXISTS orders_address_idx;
