/* gradops CANN compatibility: the export attribute of aclnn operators. */
#ifndef GRADOPS_COMPAT_ACLNNOP_ACLNN_UTIL_H_
#define GRADOPS_COMPAT_ACLNNOP_ACLNN_UTIL_H_

#define ACLNN_API __attribute__((visibility("default")))

#endif /* GRADOPS_COMPAT_ACLNNOP_ACLNN_UTIL_H_ */
