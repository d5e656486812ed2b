/*
 * gradops CANN compatibility: the acl entry header (acl/acl.h).
 *
 * Process set-up and tear-down; includes the runtime API. Usable from C and
 * C++11.
 */
#ifndef GRADOPS_COMPAT_ACL_ACL_H_
#define GRADOPS_COMPAT_ACL_ACL_H_

#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* configPath may be null; a configuration file is accepted and ignored. */
ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* GRADOPS_COMPAT_ACL_ACL_H_ */
