"""Loading: a project's configuration, its tool sources (directories, npm packages, Python
toolsets), the definition formats, the catalog and its cache."""
