# jarvisbot's container image (issue 20): a static binary on scratch,
# run as a non-root user, its data in the /data volume.
#
#   docker build -t jarvisbot .
#   docker run -v jarvisbot-data:/data --env-file jarvisbot.env jarvisbot
#
# deploy/compose.yaml runs two replicas on PostgreSQL behind Caddy.
# cmd/jarvisbot/deploy_test.go checks this file's invariants.

FROM golang:1.26 AS build
WORKDIR /src
# The modules first: a change to the code alone reuses this layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The release build (scripts/release.sh): CGO_ENABLED=0, a static binary
# that scratch can run, with the time zone database embedded (timetzdata),
# which scratch lacks: schedules and the owner's timezone work in any zone.
# Its store is SQLite; POSTGRES=1 (deploy/compose.yaml's replicas) builds
# it with PostgreSQL.
ARG POSTGRES=
RUN bash scripts/release.sh ${POSTGRES:+--postgres} /out/jarvisbot \
 && mkdir -p /out/data && chmod 0700 /out/data

FROM scratch
# TLS to Telegram, Discord, the model providers and MCP servers.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/jarvisbot /usr/local/bin/jarvisbot
COPY --from=build --chown=65532:65532 /out/data /data
# The data directory (the SQLite store, the wiki, skills, the file
# keyring) is the volume; HOME points there too, as scratch has none.
# The keyring is the file backend: give JARVIS_KEYRING_PASSWORD, or
# pass secrets as environment variables (TELEGRAM_BOT_TOKEN, ...).
ENV JARVIS_DATA_DIR=/data \
    HOME=/data \
    JARVIS_KEYRING_BACKEND=file
USER 65532:65532
VOLUME /data
# The dashboard and the probes; on loopback unless JARVIS_WEB_LISTEN
# says otherwise (0.0.0.0:8780 with JARVIS_WEB_BEHIND_PROXY=1 behind a
# proxy), which is all the HEALTHCHECK below needs.
EXPOSE 8780
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["/usr/local/bin/jarvisbot", "healthcheck", "--ready"]
ENTRYPOINT ["/usr/local/bin/jarvisbot"]
CMD ["serve"]
