from pmix import *

foo = PMIxClient()
# the leader is a Python ``pmix_proc_t`` dictionary
leader = {'nspace': "testnspace", 'rank': 0}
# opt is PMIX_GROUP_ACCEPT or PMIX_GROUP_DECLINE
# the info is a list of Python ``pmix_info_t`` dictionaries
pyinfo = []
rc, results = foo.group_join("mygroup", leader, PMIX_GROUP_ACCEPT, pyinfo)
