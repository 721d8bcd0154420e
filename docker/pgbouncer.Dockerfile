# docker/pgbouncer.Dockerfile - Debian's PgBouncer (the version the tests
# run, tests/api/test_pgbouncer.py) in transaction mode, for the lab
# compose file (docker-compose.lab.yaml; docs/DEPLOY.md). Build from the
# repository root:
#   docker build -f docker/pgbouncer.Dockerfile -t hpod-pgbouncer .
FROM debian:12.11-slim
RUN apt-get update && \
    apt-get install -y --no-install-recommends pgbouncer && \
    rm -rf /var/lib/apt/lists/*
COPY docker/pgbouncer.ini /etc/pgbouncer/pgbouncer.ini
COPY docker/pgbouncer-entrypoint.sh /usr/local/bin/pgbouncer-entrypoint
EXPOSE 6432
USER postgres
ENTRYPOINT ["/usr/local/bin/pgbouncer-entrypoint"]
