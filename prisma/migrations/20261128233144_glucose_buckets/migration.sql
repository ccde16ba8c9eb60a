-- CreateTable
CREATE TABLE "glucose_buckets" (
    "user_id" INTEGER NOT NULL,
    "minutes" INTEGER NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "readings" INTEGER NOT NULL,
    "in_range" INTEGER NOT NULL,
    "manual" INTEGER NOT NULL,

    CONSTRAINT "glucose_buckets_pkey" PRIMARY KEY ("user_id","minutes","bucket")
);

-- The buckets follow glucose_readings through statement triggers, as health_metric_buckets follow
-- health_metrics (migration *_health_metric_buckets): live readings (deleted_at IS NULL) count;
-- a trigger hands its change as signed 15-minute deltas; apply adds them to the 15-minute and the
-- hourly buckets and removes a bucket left with no reading. 70..180 mg/dL is TIME_IN_RANGE_MG_DL
-- (src/domains/glucose/glucose.daily.ts); the test compares the buckets with a fresh count.
CREATE FUNCTION glucose_buckets_apply(delta glucose_buckets[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO glucose_buckets AS b (user_id, minutes, bucket, readings, in_range, manual)
  SELECT user_id, minutes, bucket, sum(readings), sum(in_range), sum(manual)
    FROM (SELECT d.user_id, 15 AS minutes, d.bucket, d.readings, d.in_range, d.manual
            FROM unnest(delta) d
          UNION ALL
          SELECT d.user_id, 60, date_bin('1 hour', d.bucket, TIMESTAMPTZ '2000-01-01 00:00:00+00'),
                 d.readings, d.in_range, d.manual
            FROM unnest(delta) d) x
   GROUP BY user_id, minutes, bucket
   ORDER BY user_id, minutes, bucket
  ON CONFLICT (user_id, minutes, bucket)
  DO UPDATE SET readings = b.readings + EXCLUDED.readings, in_range = b.in_range + EXCLUDED.in_range,
                manual = b.manual + EXCLUDED.manual;
  -- only a delta that takes readings away can leave a bucket empty (none on an insert)
  DELETE FROM glucose_buckets b
   USING (SELECT d.user_id, 15 AS minutes, d.bucket FROM unnest(delta) d WHERE d.readings < 0
          UNION
          SELECT d.user_id, 60, date_bin('1 hour', d.bucket, TIMESTAMPTZ '2000-01-01 00:00:00+00')
            FROM unnest(delta) d WHERE d.readings < 0) k
   WHERE b.user_id = k.user_id AND b.minutes = k.minutes AND b.bucket = k.bucket
     AND b.readings <= 0;
$$;

CREATE FUNCTION glucose_buckets_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM glucose_buckets_apply(ARRAY(
    SELECT ROW(user_id, 15, date_bin('15 minutes', "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00'),
               count(*)::int, (count(*) FILTER (WHERE value_mg_dl BETWEEN 70 AND 180))::int,
               (count(*) FILTER (WHERE source = 'manual'))::int)::glucose_buckets
      FROM new_rows WHERE deleted_at IS NULL
     GROUP BY user_id, date_bin('15 minutes', "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00')));
  RETURN NULL;
END $$;

CREATE FUNCTION glucose_buckets_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM glucose_buckets_apply(ARRAY(
    SELECT ROW(user_id, 15, date_bin('15 minutes', "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00'),
               -count(*)::int, -(count(*) FILTER (WHERE value_mg_dl BETWEEN 70 AND 180))::int,
               -(count(*) FILTER (WHERE source = 'manual'))::int)::glucose_buckets
      FROM old_rows WHERE deleted_at IS NULL
     GROUP BY user_id, date_bin('15 minutes', "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00')));
  RETURN NULL;
END $$;

CREATE FUNCTION glucose_buckets_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM glucose_buckets_apply(ARRAY(
    SELECT ROW(user_id, 15, bucket, sum(n)::int, sum(r)::int, sum(m)::int)::glucose_buckets
      FROM (SELECT user_id, 1 AS n, (value_mg_dl BETWEEN 70 AND 180)::int AS r,
                   (source = 'manual')::int AS m,
                   date_bin('15 minutes', "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket
              FROM new_rows WHERE deleted_at IS NULL
            UNION ALL
            SELECT user_id, -1, -(value_mg_dl BETWEEN 70 AND 180)::int, -(source = 'manual')::int,
                   date_bin('15 minutes', "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00')
              FROM old_rows WHERE deleted_at IS NULL) x
     GROUP BY user_id, bucket
    HAVING sum(n) <> 0 OR sum(r) <> 0 OR sum(m) <> 0));
  RETURN NULL;
END $$;

CREATE FUNCTION glucose_buckets_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE glucose_buckets;
  RETURN NULL;
END $$;

CREATE TRIGGER glucose_buckets_insert AFTER INSERT ON glucose_readings
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION glucose_buckets_on_insert();
CREATE TRIGGER glucose_buckets_delete AFTER DELETE ON glucose_readings
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION glucose_buckets_on_delete();
CREATE TRIGGER glucose_buckets_update AFTER UPDATE ON glucose_readings
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION glucose_buckets_on_update();
CREATE TRIGGER glucose_buckets_truncate AFTER TRUNCATE ON glucose_readings
  FOR EACH STATEMENT EXECUTE FUNCTION glucose_buckets_on_truncate();

-- a bulk writer's session may run as a replica (src/db/copy.ts); these triggers fire there too
ALTER TABLE glucose_readings ENABLE ALWAYS TRIGGER glucose_buckets_insert;
ALTER TABLE glucose_readings ENABLE ALWAYS TRIGGER glucose_buckets_delete;
ALTER TABLE glucose_readings ENABLE ALWAYS TRIGGER glucose_buckets_update;
ALTER TABLE glucose_readings ENABLE ALWAYS TRIGGER glucose_buckets_truncate;

-- the readings already stored
SELECT glucose_buckets_apply(ARRAY(
  SELECT ROW(user_id, 15, date_bin('15 minutes', "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00'),
             count(*)::int, (count(*) FILTER (WHERE value_mg_dl BETWEEN 70 AND 180))::int,
             (count(*) FILTER (WHERE source = 'manual'))::int)::glucose_buckets
    FROM glucose_readings WHERE deleted_at IS NULL
   GROUP BY user_id, date_bin('15 minutes', "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00')));
