"""Command-line tools from the npm registry that projects run through `npx -y` every day; any other
package run with its install prompt answered in advance is code no one has looked at."""

from __future__ import annotations

import re

WELL_KNOWN_NPX = frozenset(
    {
        "prettier",
        "eslint",
        "typescript",
        "tsc",
        "tsx",
        "ts-node",
        "jest",
        "vitest",
        "mocha",
        "vite",
        "webpack",
        "webpack-cli",
        "esbuild",
        "rollup",
        "parcel",
        "turbo",
        "nx",
        "lerna",
        "husky",
        "lint-staged",
        "nodemon",
        "serve",
        "http-server",
        "live-server",
        "json-server",
        "concurrently",
        "cross-env",
        "rimraf",
        "npm-check-updates",
        "degit",
        "playwright",
        "@playwright/test",
        "@angular/cli",
        "@vue/cli",
        "@nestjs/cli",
        "@biomejs/biome",
        "@commitlint/cli",
        "@changesets/cli",
        "storybook",
        "prisma",
        "drizzle-kit",
        "typeorm",
        "sequelize-cli",
        "knex",
        "wrangler",
        "vercel",
        "netlify-cli",
        "firebase-tools",
        "expo",
        "react-native",
        "tailwindcss",
        "postcss",
        "sass",
        "stylelint",
        "svgo",
        "markdownlint-cli",
        "cspell",
        "semantic-release",
        "license-checker",
        "depcheck",
        "madge",
        "pm2",
        "yarn",
        "pnpm",
        "corepack",
        "node-gyp",
        "shadcn",
        "shadcn-ui",
        "create-react-app",
    }
)


def well_known_npx(spec: str) -> bool:
    """`prettier`, `prettier@3`, `@playwright/test@latest`, `create-vite@latest` (a scaffolder)."""
    name = re.sub(r"(?<=.)@[^/@]*$", "", spec)
    return name in WELL_KNOWN_NPX or bool(re.fullmatch(r"(?:@[\w.-]+/)?create-[\w.-]+", name))
