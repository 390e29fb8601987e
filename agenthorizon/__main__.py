import sys

from agenthorizon.cli import main

sys.exit(main())
