-- How usage metering reads an event property (a jsonb value of UsageEvent.properties), for
-- meter filters and aggregations alike (src/modules/meters/meter-filter.ts): auto-parsed
-- number, then boolean, then string, so "10" and 10 are the same number. SQL functions, so
-- the planner inlines them into the queries that use them.

-- The value as a number: a JSON number, or a string that reads as one; else NULL.
CREATE FUNCTION usage_number(v JSONB) RETURNS NUMERIC LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'number' THEN (v #>> '{}')::NUMERIC
    WHEN 'string' THEN CASE WHEN (v #>> '{}') ~ '^\s*-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]{1,4})?\s*$' THEN trim(v #>> '{}')::NUMERIC END
  END
$$;

-- The value as a boolean: a JSON boolean, or the string true or false (any case); else NULL.
CREATE FUNCTION usage_bool(v JSONB) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'boolean' THEN (v #>> '{}')::BOOLEAN
    WHEN 'string' THEN CASE lower(trim(v #>> '{}')) WHEN 'true' THEN TRUE WHEN 'false' THEN FALSE END
  END
$$;

-- The value as text: a string as it is, anything else (but null) as its JSON text.
CREATE FUNCTION usage_text(v JSONB) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v) WHEN 'string' THEN v #>> '{}' WHEN 'null' THEN NULL ELSE v::TEXT END
$$;
