from pmix import *

# the callback is executed on the PMIx progress thread once the group
# has formed. It must not make a blocking PMIx call
def mycb(status:int, results:list, cbdata):
    print("JOIN COMPLETE", status, results)

def myinvitehdlr(evhdlr:int, status:int,
                 source:dict, info:list, results:list):
    # accepting from within the handler is safe in this form
    foo.group_join_nb("mygroup", source, PMIX_GROUP_ACCEPT, [], mycb, None)
    return PMIX_EVENT_ACTION_COMPLETE, None
