"""The visual table as a Telegram Mini App (issue 19): the page's server side.

So far: ``initdata`` (who a request is from, from Telegram's signed ``initData``) and
``snapshot`` (what one seat may see of a table, as JSON). The page, its routes, live updates
and the browser tests are still to come.
"""
