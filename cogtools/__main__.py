from cogtools.cli.porcelain import main

raise SystemExit(main())
