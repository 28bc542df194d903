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
    GRANT USAGE, SELECT ON SEQUENCES TO tinymemory_app;
ALTER DEFAULT PRIVILEGES FOR ROLE tinymemory_owner IN SCHEMA public
    GRANT EXECUTE ON FUNCTIONS TO tinymemory_app;
