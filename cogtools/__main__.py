from cogtools.cli.entry import main

raise SystemExit(main())
