-- Run once by the Postgres image as the superuser, before anything else connects.
-- Two roles: the owner applies migrations (`tinymemory db upgrade`); the service role reads and writes
-- rows and nothing else. Neither is a superuser, and neither may bypass row-level security.
CREATE ROLE tinymemory_owner LOGIN PASSWORD 'owner-change-me' NOSUPERUSER NOBYPASSRLS;
CREATE ROLE tinymemory_app LOGIN PASSWORD 'app-change-me' NOSUPERUSER NOBYPASSRLS;
CREATE DATABASE tinymemory OWNER tinymemory_owner;
\connect tinymemory
-- pgvector is not a trusted extension: the superuser creates it once.
CREATE EXTENSION IF NOT EXISTS vector;
GRANT USAGE ON SCHEMA public TO tinymemory_app;
-- Tables the owner creates later are readable and writable by the service role, never alterable.
ALTER DEFAULT PRIVILEGES FOR ROLE tinymemory_owner IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO tinymemory_app;
ALTER DEFAULT PRIVILEGES FOR ROLE tinymemory_owner IN SCHEMA public
    GRANT EXECUTE ON FUNCTIONS TO tinymemory_app;
-- No right on sequences: the row id sequences count every tenant's writes, and identity columns fill
-- themselves without one.
-- The activity statistics of this database (rows inserted, updated and deleted per table, scans, blocks
-- read, other sessions' states, locks held: every tenant's together) are for the owner and monitoring
-- roles, not for the service role; existing deployments run this block once as the superuser.
DO $$
DECLARE target record;
BEGIN
    FOR target IN
        SELECT 'FUNCTION ' || p.oid::regprocedure AS what, 'EXECUTE' AS privilege FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace
            AND (p.proname LIKE 'pg\_stat\_get\_%' OR p.proname = 'pg_lock_status')
        UNION ALL
        SELECT 'TABLE ' || c.oid::regclass, 'SELECT' FROM pg_class c
        WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'v'
            AND (c.relname LIKE 'pg\_stat\_%' OR c.relname LIKE 'pg\_statio\_%' OR c.relname = 'pg_locks')
    LOOP
        EXECUTE format('REVOKE %s ON %s FROM PUBLIC', target.privilege, target.what);
        EXECUTE format('GRANT %s ON %s TO pg_monitor, tinymemory_owner', target.privilege, target.what);
    END LOOP;
END
$$;
