# The bankrail container image, built from this repository (docs/operations.md):
#   docker build -t bankrail .
#   docker run -p 8080:8080 -v bankrail-data:/data bankrail                      # a sandbox on SQLite
#   docker run -p 8080:8080 -e BANKRAIL_MODE=production \
#     -e BANKRAIL_DATABASE_URL=postgres://... -e BANKRAIL_PUBLIC_URL=https://pay.example.com bankrail
# Every flag is also an environment variable BANKRAIL_<NAME> (bankrail serve --help).
# The build needs only the Go module proxy; bankrail is pure Go (SQLite included), so the
# image holds one static binary and no shell.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/bankrail ./cmd/bankrail

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/bankrail /usr/local/bin/bankrail
# SQLite's directory; unused with BANKRAIL_DATABASE_URL. Owned by the image's nonroot user.
VOLUME /data
ENV BANKRAIL_DATA_DIR=/data BANKRAIL_ADDR=0.0.0.0:8080 BANKRAIL_LOG_FORMAT=json
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/bankrail"]
CMD ["serve"]
