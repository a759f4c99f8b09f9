"""Writing tool definitions from other descriptions: OpenAPI documents."""

#: The most operations (and path items) an OpenAPI document may have, unless ``--max-operations``
#: says otherwise: GitHub's API has about 1,100, Stripe's 600; every one is read and checked, even
#: when ``--tag`` or ``--operation`` chooses a few. (Here, not in :mod:`.openapi`: the command's
#: options are built without importing the importer.)
MAX_OPERATIONS = 5000
