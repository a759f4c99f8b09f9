"""Writing tool definitions from other descriptions: OpenAPI documents."""
