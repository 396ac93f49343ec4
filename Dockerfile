# gpu-advisor Discord bot.
#   docker build -t gpu-advisor .
#   docker run --rm -e DISCORD_TOKEN=... -v gpu-advisor-data:/data gpu-advisor
# No token or other secret is baked in: pass settings with -e / --env-file.
# Saved state (server settings, rigs, conversations) is a SQLite file in the
# /data volume; set DATABASE_URL for PostgreSQL instead (docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MPLBACKEND=Agg \
    MPLCONFIGDIR=/tmp/matplotlib

WORKDIR /app

# A font with CJK glyphs for the charts of Chinese replies (WenQuanYi Micro Hei, ~5 MB;
# bot/discord_app/chart.py picks it up by name).
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-wqy-microhei \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first, from pyproject.toml alone: this layer is reused until
# the dependency list changes, however often the code does.
COPY pyproject.toml requirements.lock ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -c requirements.lock -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

RUN useradd --system --uid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin advisor \
    && mkdir -p /data && chown advisor /data
ENV DATA_DIR=/data
VOLUME ["/data"]

# The code and the knowledge it reads (found next to the package, not via the cwd).
COPY bot/ ./bot/
COPY knowledge/ ./knowledge/

USER advisor
# Build matplotlib's font cache now, not on the first chart.
RUN python -c "import matplotlib.font_manager"

CMD ["python", "-m", "bot", "run"]
