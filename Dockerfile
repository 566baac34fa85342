# ckpt-audit in a container: a build stage with Debian 12's toolchain and -dev packages, and
# a slim runtime with only the tools and the libraries they load (scripts/image-rootfs).
#   docker build -t ckpt-audit .
#   docker run --rm -v "$PWD:/work:ro" ckpt-audit ./my-model
FROM debian:12 AS build
WORKDIR /src
COPY . .
RUN scripts/install-deps \
 && cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DCKPT_BUILD_TESTS=OFF -DCKPT_BUILD_BENCHMARKS=OFF \
 && cmake --build /build -j "$(nproc)" --target ckpt-audit ckpt-chain ckpt-diff ckpt-convert ckpt-h5probe \
 && scripts/image-rootfs /build/bin /rootfs

FROM debian:12-slim AS runtime
# CA certificates for https:// and hf:// inputs; nothing else is installed.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /rootfs/ /
COPY --from=build /src/schemas/ /usr/local/share/ckpt-audit/schemas/
RUN ckpt-audit --version
# Read-only by design: the tools run as nobody and never write into what they audit.
USER 65534:65534
WORKDIR /work
ENTRYPOINT ["ckpt-audit"]
CMD ["--help"]
