"""`python -m pyclient`: the `pyclient` command (`pyclient.server.cli`), for when the console script is not on PATH.

```python
from pyclient.server.cli import parser

print(parser().prog)   # pyclient
```
"""

if __name__ == "__main__":
    from pyclient.server.cli import main

    main()
