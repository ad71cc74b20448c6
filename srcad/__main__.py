"""`python -m srcad`: the same command line as `srcad`."""

import sys

from srcad.cli import main

sys.exit(main())
