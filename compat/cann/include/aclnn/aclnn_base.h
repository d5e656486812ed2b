/*
 * gradops CANN compatibility: aclnn library set-up (aclnn/aclnn_base.h).
 * Usable from C and C++11.
 */
#ifndef GRADOPS_COMPAT_ACLNN_ACLNN_BASE_H_
#define GRADOPS_COMPAT_ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Both succeed and do nothing: the operators need no set-up. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char* configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* GRADOPS_COMPAT_ACLNN_ACLNN_BASE_H_ */
