from tfconsole.command.main import main

raise SystemExit(main())
