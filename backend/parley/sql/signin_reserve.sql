-- Reserve one sign-in attempt against every key (an account, an address) before its secret is
-- checked. The attempt counts as a failure from now on (a success takes it back), so a burst
-- cannot start more checks than a key has free attempts, on any number of instances. Past its
-- free attempts (p_free, in the order of p_keys) a key waits p_delay seconds, doubling with
-- each further attempt up to p_delay_max; counts older than p_window are forgotten. Returns
-- NULL when reserved, else the seconds until the longest wait is over, having changed nothing:
-- a refused attempt never makes anyone wait longer.
CREATE OR REPLACE FUNCTION parley_signin_reserve(
    p_keys text[], p_free int[], p_delay double precision, p_delay_max double precision,
    p_window interval)
RETURNS double precision AS $$
DECLARE
    v_now timestamptz;
    v_wait double precision;
BEGIN
    -- Each key's row exists and is locked, in key order: two reservations that share a key
    -- queue for it (never deadlock), and each sees what the one before it counted.
    INSERT INTO login_throttle (key, failures, last_failure_at)
    SELECT k, 0, now() FROM unnest(p_keys) AS k ORDER BY k
    ON CONFLICT (key) DO NOTHING;
    PERFORM 1 FROM login_throttle WHERE key = ANY (p_keys) ORDER BY key FOR UPDATE;
    v_now := clock_timestamp();  -- after the queue, not when this transaction began
    SELECT max(extract(epoch FROM locked_until - v_now)) INTO v_wait FROM login_throttle
    WHERE key = ANY (p_keys) AND locked_until > v_now;
    IF v_wait IS NOT NULL THEN
        RETURN v_wait;
    END IF;
    UPDATE login_throttle AS t SET
        failures = CASE WHEN t.last_failure_at < v_now - p_window THEN 1
                        ELSE t.failures + 1 END,
        last_failure_at = v_now
    WHERE t.key = ANY (p_keys);
    UPDATE login_throttle AS t SET locked_until = v_now + make_interval(
        secs => least(p_delay_max, p_delay * 2 ^ least(t.failures - l.free, 30)))
    FROM unnest(p_keys, p_free) AS l (key, free)
    WHERE t.key = l.key AND t.failures >= l.free;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
