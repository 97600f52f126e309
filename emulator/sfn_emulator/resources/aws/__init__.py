"""AWS services for Task states, served by moto's in-memory backends in this process.

`backends` makes botocore clients that moto answers (and nothing else sees); `sdk` holds what the
AWS SDKs for Java, which Step Functions runs on, decide: service and exception names, and how JSON
parameters and results map to the service model.
"""

# The header moto 5 takes a request's account from: set by our clients and by the HTTP passthrough.
# (Here, so that the passthrough need not import the clients' module, botocore's client machinery.)
MOTO_ACCOUNT_HEADER = "x-moto-account-id"

# Set in the request context of our own clients' calls: their changes reach `moto_state` from the
# clients themselves, so in-process mode's hook for the user's moto calls passes them by.
OWN_CLIENT_CONTEXT_KEY = "sfn_emulator_own_client"
