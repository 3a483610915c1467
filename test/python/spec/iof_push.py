from pmix import *

foo = PMIxTool()
# ... after a successful foo.init() and attachment to a server ...
pytargets = [{'nspace': "target-nspace", 'rank': PMIX_RANK_WILDCARD}]
# data carries the bytes to be delivered to the targets' stdin
data = {'bytes': "some input text"}
pydirs = []
rc = foo.iof_push(pytargets, data, pydirs)
