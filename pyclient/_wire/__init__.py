"""The wire: a run's HTTP request sent through a swappable `Transport` (httpx here, `fetch` in the
page), its body read as server-sent events and decoded into ag-ui-protocol's event models.
Imports only `_base`.
"""
