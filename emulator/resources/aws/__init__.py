"""AWS services for Task states, served by moto's in-memory backends in this process.

`backends` makes botocore clients that moto answers (and nothing else sees); `sdk` holds what the
AWS SDKs for Java, which Step Functions runs on, decide: service and exception names, and how JSON
parameters and results map to the service model.
"""
